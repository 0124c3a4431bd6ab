// A small element builder: h("button", { class: "x", onclick }, "text", child).

type Attrs = Record<string, string | number | boolean | ((ev: Event) => void) | undefined>;
export type Child = Node | string | null | undefined | false | Child[];

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") {
      el.addEventListener(k.replace(/^on/, ""), v);
    } else if (k === "class") {
      el.className = String(v);
    } else if (v === true) {
      el.setAttribute(k, "");
    } else {
      el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c);
  }
}

/** Replaces everything in `el` with `children`. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** Asks a yes/no question in a modal dialog (keyboard and screen readers included). */
export function confirmDialog(question: string, yes: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "confirm", "aria-label": question },
      h("p", {}, question),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", id: "confirm-yes", onclick: () => close(true) }, yes),
        h("button", { type: "button", id: "confirm-no", onclick: () => close(false) }, "Cancel")));
    const close = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.addEventListener("cancel", () => close(false));
    document.body.append(dialog);
    dialog.showModal();
    (dialog.querySelector("#confirm-yes") as HTMLButtonElement).focus();
  });
}
