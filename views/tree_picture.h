// TreePicture: the schedule tree as a picture laid out by Graphviz (tree_dot.h writes the
// DOT; DotPicture renders and shows it). Nodes and band members are found through their
// stable SVG ids: a click reports the id of the innermost element under the mouse (band
// member "0.1/m0" before band "0.1").
#pragma once

#include "views/dot_picture.h"

#include <memory>

namespace loopscape::poly {
struct TreeDescription;
}

namespace loopscape::views {

class TreePicture : public DotPicture {
  Q_OBJECT
public:
  explicit TreePicture(QWidget* parent = nullptr);
  ~TreePicture() override;

  /// Shows `tree` once it is laid out; with null, shows `message` instead.
  void setTree(std::shared_ptr<const poly::TreeDescription> tree, const QString& message = {});

protected:
  bool hasContent() const override { return m_tree != nullptr; }
  std::function<std::string()> dotSource(bool dark) const override;
  void collectElements(const ShapeLocator& locate, std::vector<Element>& out) const override;

private:
  std::shared_ptr<const poly::TreeDescription> m_tree;
};

} // namespace loopscape::views
