// Well-formed Unicode (docs/decisions.md "Strings are well-formed Unicode"):
// neither database can store a lone UTF-16 surrogate (`"\ud800"` is valid JSON),
// so the doors refuse one and the ledger replaces one from a source.

// With the u flag, \p{Cs} matches only a surrogate that is not half of a pair.
const LONE_SURROGATE = /\p{Cs}/u
const LONE_SURROGATES = /\p{Cs}/gu

/** The first lone surrogate's code unit in hex (`D800`), or null when the text is well-formed. */
export function loneSurrogateIn(text: string): string | null {
  const match = LONE_SURROGATE.exec(text)
  return match ? match[0].charCodeAt(0).toString(16).toUpperCase() : null
}

/** The text with each lone surrogate replaced by U+FFFD (the same object when there is none). */
export function wellFormed(text: string): string {
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text
}
