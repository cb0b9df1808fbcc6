// The signed-in account: a small panel to sign up, sign in and out. The session is an HttpOnly cookie that
// no script reads; the page only asks the gateway who is signed in (GET /api/session).
import { el } from "./dom.js";
import { t, tNodes } from "./i18n.js";
import { api } from "./net.js";

const JSON_HEADERS = { "Content-Type": "application/json" };

/** The signed-in account's name, or null. */
export async function whoAmI() {
  const { status, body } = await api("/api/session");
  return status === 200 ? body.name : null; // null: nobody is signed in
}

async function send(path, name, password) {
  return api(path, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify({ name, password }) });
}

/** Draw the account panel in `box`; `changed(name)` is called after every sign-in or sign-out. */
export async function mountAccount(box, changed) {
  const name = await whoAmI();
  draw(box, name, changed);
  changed(name);
}

function draw(box, name, changed) {
  if (name) {
    box.replaceChildren(el("p", { id: "signed-in" }, tNodes("account.signed_in_as", { name: el("a", { href: `/players/${encodeURIComponent(name)}` }, el("b", {}, name)) }), " "),
      el("button", { type: "button", id: "sign-out", onclick: async () => {
        await api("/api/session", { method: "DELETE" });
        draw(box, null, changed);
        changed(null);
      } }, t("account.sign_out")));
    return;
  }
  const message = el("div", { id: "account-message" });
  const form = el("form", { id: "account-form" },
    el("label", { class: "row" }, t("account.name"), " ", el("input", { name: "name", autocomplete: "username", required: true, minlength: 2, maxlength: 24 })),
    el("label", { class: "row" }, t("account.password"), " ", el("input", { name: "password", type: "password", autocomplete: "current-password", required: true, minlength: 8 })),
    el("button", { class: "primary", type: "submit", name: "signin", value: "in" }, t("account.sign_in")),
    el("button", { type: "submit", name: "signup", value: "up" }, t("account.sign_up")), message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const up = event.submitter && event.submitter.name === "signup";
    const { status, body } = await send(up ? "/api/accounts" : "/api/session", form.name.value.trim(), form.password.value);
    if (status === 200 || status === 201) {
      draw(box, body.name, changed);
      changed(body.name);
    } else message.replaceChildren(el("div", { class: "notice error" }, body ? body.message : t("error.refused", { status })));
  });
  box.replaceChildren(form);
}
