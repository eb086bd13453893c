// GraphvizRenderer: lays out DOT text with Graphviz's "dot" engine and renders it to SVG
// in memory. Graphviz keeps global state and is not thread-safe, so the process has one
// renderer with one dedicated thread, and every Graphviz call (context, parse, layout,
// render, free) runs on that thread, one request after another. Requests are queued from
// the GUI thread; each result is delivered on the GUI thread to a callback guarded by a
// context object. A request whose `wanted` check fails when its turn comes (a newer
// request superseded it) is skipped without touching Graphviz.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <string>

class QThread;

namespace loopscape::views {

class GraphvizRenderer : public QObject {
  Q_OBJECT
public:
  struct Result {
    QByteArray svg;            ///< the SVG document, empty on error
    QString error;             ///< Graphviz's message when parsing, layout or rendering failed
    QThread* thread = nullptr; ///< the thread that ran Graphviz (always workerThread())
  };

  /// The process's renderer, created on first use from the GUI thread and destroyed with
  /// the application object (its thread is stopped and the Graphviz context freed then).
  static GraphvizRenderer* instance();
  ~GraphvizRenderer() override;

  /// Queues `dot` (a function producing the DOT text, run on the Graphviz thread) for
  /// layout. When its turn comes and `wanted()` is still true, Graphviz renders it and
  /// `done` runs on the GUI thread, unless `context` was destroyed meanwhile.
  void render(QObject* context, std::function<std::string()> dot, std::function<bool()> wanted,
              std::function<void(Result)> done);

  /// The thread on which every Graphviz call runs.
  QThread* workerThread() const { return m_thread; }

private:
  GraphvizRenderer();
  QThread* m_thread = nullptr;
  QObject* m_worker = nullptr; ///< lives on m_thread; requests are queued to it
};

} // namespace loopscape::views
