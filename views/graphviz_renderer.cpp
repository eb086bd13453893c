#include "views/graphviz_renderer.h"

#include "core/ir/assert.h"

#include <QCoreApplication>
#include <QThread>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

namespace loopscape::views {

namespace {

// Graphviz state; touched only on the renderer's thread.
GVC_t* g_context = nullptr;
std::string g_messages; ///< what Graphviz reported during the current request

int collectMessage(char* message) {
  g_messages += message;
  return 0;
}

/// Parses, lays out and renders `dot` (on the Graphviz thread).
GraphvizRenderer::Result layoutToSvg(const std::string& dot) {
  GraphvizRenderer::Result result;
  result.thread = QThread::currentThread();
  if (g_context == nullptr) {
    agseterrf(&collectMessage);
    g_context = gvContext();
  }
  g_messages.clear();
  agreseterrors();
  Agraph_t* graph = agmemread(dot.c_str());
  if (graph == nullptr) {
    result.error = QStringLiteral("Graphviz could not read the graph: %1").arg(QString::fromStdString(g_messages));
    return result;
  }
  if (gvLayout(g_context, graph, "dot") != 0) {
    result.error = QStringLiteral("Graphviz layout failed: %1").arg(QString::fromStdString(g_messages));
    agclose(graph);
    return result;
  }
  char* data = nullptr;
  unsigned int length = 0;
  if (gvRenderData(g_context, graph, "svg", &data, &length) != 0 || data == nullptr) {
    result.error = QStringLiteral("Graphviz could not render SVG: %1").arg(QString::fromStdString(g_messages));
  } else {
    result.svg = QByteArray(data, qsizetype(length));
  }
  if (data != nullptr) gvFreeRenderData(data);
  gvFreeLayout(g_context, graph);
  agclose(graph);
  return result;
}

} // namespace

GraphvizRenderer* GraphvizRenderer::instance() {
  static QPointer<GraphvizRenderer> renderer;
  LS_ASSERT(QCoreApplication::instance() != nullptr, "the Graphviz renderer needs an application object");
  LS_ASSERT(QThread::currentThread() == QCoreApplication::instance()->thread(),
            "the Graphviz renderer is created and used from the GUI thread");
  if (!renderer) renderer = new GraphvizRenderer();
  return renderer;
}

GraphvizRenderer::GraphvizRenderer() : QObject(QCoreApplication::instance()) {
  setObjectName(QStringLiteral("graphvizRenderer"));
  m_thread = new QThread(this);
  m_thread->setObjectName(QStringLiteral("graphviz"));
  m_worker = new QObject();
  m_worker->moveToThread(m_thread);
  m_thread->start();
}

GraphvizRenderer::~GraphvizRenderer() {
  // Free the context on its own thread, after every queued request.
  QMetaObject::invokeMethod(
      m_worker,
      [] {
        if (g_context != nullptr) gvFreeContext(g_context);
        g_context = nullptr;
      },
      Qt::BlockingQueuedConnection);
  m_thread->quit();
  m_thread->wait();
  delete m_worker;
}

void GraphvizRenderer::render(QObject* context, std::function<std::string()> dot, std::function<bool()> wanted,
                              std::function<void(Result)> done) {
  LS_ASSERT(QThread::currentThread() == thread(), "requests come from the GUI thread");
  QPointer<QObject> guard(context);
  QMetaObject::invokeMethod(
      m_worker,
      [this, guard, dot = std::move(dot), wanted = std::move(wanted), done = std::move(done)]() mutable {
        LS_ASSERT(QThread::currentThread() == m_thread, "Graphviz runs on its own thread only");
        if (!wanted()) return;
        Result result = layoutToSvg(dot());
        // Back to the GUI thread; `guard` is only read there.
        QMetaObject::invokeMethod(
            this,
            [guard, done = std::move(done), result = std::move(result)]() mutable {
              if (guard) done(std::move(result));
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

} // namespace loopscape::views
