// Cards as the server writes them ("7S", "TD", "AH") drawn for people and screen readers.

const RANK_NAMES: Record<string, string> = {
  A: "ace", T: "10", J: "jack", Q: "queen", K: "king",
};
const SUITS: Record<string, { symbol: string; name: string; red: boolean }> = {
  C: { symbol: "♣", name: "clubs", red: false },
  D: { symbol: "♦", name: "diamonds", red: true },
  H: { symbol: "♥", name: "hearts", red: true },
  S: { symbol: "♠", name: "spades", red: false },
};
const ORDER = "A23456789TJQK";

/** "T♥" → "10♥": the short face. */
export function face(card: string): string {
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + (SUITS[card[1]]?.symbol ?? card[1]);
}

/** "TH" → "10 of hearts": what a screen reader says. */
export function spoken(card: string): string {
  return `${RANK_NAMES[card[0]] ?? card[0]} of ${SUITS[card[1]]?.name ?? card[1]}`;
}

/** Cards in words: "7♣ 7♦ 7♥". */
export function faces(cards: readonly string[]): string {
  return cards.map(face).join(" ");
}

/** Sorts by suit then rank (the order a player holds them). */
export function bySuit(cards: readonly string[]): string[] {
  return [...cards].sort((a, b) => "CDHS".indexOf(a[1]) - "CDHS".indexOf(b[1]) || ORDER.indexOf(a[0]) - ORDER.indexOf(b[0]));
}

/** Sorts by rank then suit (sets side by side). */
export function byRank(cards: readonly string[]): string[] {
  return [...cards].sort((a, b) => ORDER.indexOf(a[0]) - ORDER.indexOf(b[0]) || "CDHS".indexOf(a[1]) - "CDHS".indexOf(b[1]));
}

/** A card as an element: a button when `onClick` is given, else a plain face. */
export function cardElement(card: string, opts: { onClick?: () => void; label?: string; selected?: boolean; small?: boolean } = {}): HTMLElement {
  const el = document.createElement(opts.onClick ? "button" : "span");
  el.className = "card" + (SUITS[card[1]]?.red ? " red" : "") + (opts.small ? " small" : "") + (opts.selected ? " selected" : "");
  el.dataset.card = card;
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = card[0] === "T" ? "10" : card[0];
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = SUITS[card[1]]?.symbol ?? card[1];
  el.append(rank, suit);
  el.setAttribute("aria-label", opts.label ?? spoken(card));
  if (!opts.onClick) el.setAttribute("role", "img");
  if (opts.onClick) {
    (el as HTMLButtonElement).type = "button";
    if (opts.selected !== undefined) el.setAttribute("aria-pressed", String(opts.selected));
    el.addEventListener("click", opts.onClick);
  }
  return el;
}

/** A face-down card (the stock, an opponent's hand). */
export function backElement(label: string, onClick?: () => void): HTMLElement {
  const el = document.createElement(onClick ? "button" : "span");
  el.className = "card back";
  el.setAttribute("aria-label", label);
  if (onClick) {
    (el as HTMLButtonElement).type = "button";
    el.addEventListener("click", onClick);
  } else {
    el.setAttribute("role", "img");
  }
  return el;
}
