/**
 * A library's error in the page's words: the libraries name the function that refused (`solveShape:`,
 * `chainAt:`) and their parameters (`capacity`, `fpr`), which the page's fields call n and p; a bound computed in
 * floating point prints 16 digits. The page shows what was refused and the range it must be in, nothing else.
 */

/** The library's parameter names, as the page's fields name them. */
const FIELD_NAMES: Record<string, string> = {
  capacity: 'n',
  fpr: 'p',
  bits: 'm',
  hashes: 'k',
  growth: 'g',
  tightening: 'r',
};

/** A number of many digits to four significant ones: 4.291533886657804e-7 → 4.292e-7. */
function shortNumber(text: string): string {
  const value = Number(text);
  if (!Number.isFinite(value)) return text;
  const short = value.toPrecision(4);
  return short.includes('e') ? short.replace(/\.?0+e/, 'e').replace('e+', 'e') : String(Number(short));
}

/** `message` as the page shows it (see the module's comment). */
export function userWords(message: string): string {
  return message
    .replace(/^[A-Za-z][\w.]*: /, '')
    .replace(/^(capacity|fpr|bits|hashes|growth|tightening)\b/, (name) => FIELD_NAMES[name]!)
    .replace(/\bfpr\b/g, 'p')
    .replace(/\bcapacity (?=\d)/g, 'n ')
    .replace(/\b(smaller|larger) capacity\b/g, '$1 n')
    .replace(/got (number|string|bigint) /, 'got ')
    .replace(/\d+\.\d{6,}(?:e[-+]?\d+)?|\b\d{13,}\b/g, shortNumber);
}

/** A field's name in a message: its label up to its colon or parenthesis (`n: keys` → `n`). */
export function fieldName(label: string): string {
  return label.split(/:| \(/)[0]!;
}
