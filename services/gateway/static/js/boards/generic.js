// The fallback renderer: every field of the view as a collapsible tree.
"use strict";
HM.Boards.generic = function (view) {
  return HM.el("div", { class: "json" }, HM.tree(view, "view"));
};
