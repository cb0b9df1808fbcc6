// The lobby's Table chat (issue 44.10): the players seated at an open table talk before its game starts.
// One panel outside the tables' list (which is drawn again every 3 s), so a message being typed stays.
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./net.js";

const JSON_HEADERS = { "Content-Type": "application/json" };

export class TableChat {
  constructor(panel) {
    this.panel = panel;
    this.log = panel.querySelector("#table-chat-log");
    this.title = panel.querySelector("#table-chat-title");
    this.form = panel.querySelector("#table-chat-form");
    this.text = panel.querySelector("#table-chat-text");
    this.message = panel.querySelector("#table-chat-message");
    this.table = null;
    this.form.addEventListener("submit", (event) => this.send(event));
  }

  /** The open table the viewer sits at (or null: the panel hides), its messages read again. */
  async show(table) {
    this.table = table;
    this.panel.hidden = !table;
    if (!table) return;
    this.title.textContent = `${table.title}: ${table.seated.join(", ")}`;
    const { status, body } = await api(`/api/tables/${table.table_id}/chat`);
    if (status !== 200 || this.table !== table) return;
    this.log.replaceChildren(...(body.messages.length ? body.messages.map((m) => el("div", { class: "chat-line" }, el("b", {}, m.author), ": ", m.text))
      : [el("p", {}, t("tablechat.empty"))]));
  }

  async send(event) {
    event.preventDefault();
    if (!this.table || !this.text.value.trim()) return;
    const { status, body } = await api(`/api/tables/${this.table.table_id}/chat`, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify({ text: this.text.value }) });
    this.message.replaceChildren(status === 201 ? "" : el("div", { class: "notice error" }, body ? body.message : t("error.refused", { status })));
    if (status === 201) {
      this.text.value = "";
      this.show(this.table);
    }
  }
}
