#include "views/tree_picture.h"

#include "core/poly/tree_description.h"
#include "views/qt_text.h"
#include "views/tree_dot.h"

namespace loopscape::views {

TreePicture::TreePicture(QWidget* parent) : DotPicture(parent) { setObjectName(QStringLiteral("scheduleTreePicture")); }

TreePicture::~TreePicture() = default;

void TreePicture::setTree(std::shared_ptr<const poly::TreeDescription> tree, const QString& message) {
  m_tree = std::move(tree);
  requestRender(message);
}

std::function<std::string()> TreePicture::dotSource(bool dark) const {
  return [tree = m_tree, palette = dark ? darkDotPalette() : lightDotPalette()] {
    return scheduleTreeDot(tree->root, palette, tree->dependencesKnown);
  };
}

void TreePicture::collectElements(const ShapeLocator& locate, std::vector<Element>& out) const {
  std::function<void(const poly::TreeNodeView&)> walk = [&](const poly::TreeNodeView& n) {
    const QString id = qs(n.id);
    const QRectF rect = locate(id);
    if (!rect.isNull()) {
      QString tip = QString::fromLatin1(poly::treeNodeKindName(n.kind));
      if (!n.text.empty()) tip += QStringLiteral(": ") + qs(n.text);
      out.push_back({id, rect, tip, false});
    }
    for (int i = 0; i < int(n.members.size()); ++i) {
      const std::string memberId = bandMemberId(n.id, i);
      const QRectF row = locate(qs(memberAnchorId(memberId)));
      if (row.isNull()) continue;
      const poly::BandMemberView& m = n.members[std::size_t(i)];
      const QString tip = QStringLiteral("member %1: %2\n%3")
                              .arg(qs(m.name), qs(m.schedule),
                                   !m_tree->dependencesKnown ? QStringLiteral("dependences: being analysed")
                                   : m.parallel              ? QStringLiteral("parallel")
                                                             : QStringLiteral("carries dependences"));
      out.push_back({qs(memberId), row, tip, true});
    }
    for (const poly::TreeNodeView& c : n.children)
      walk(c);
  };
  if (m_tree) walk(m_tree->root);
}

} // namespace loopscape::views
