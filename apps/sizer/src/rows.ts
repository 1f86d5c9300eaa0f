/** One result: `field` names it for scripts and tests, `value` is the raw number, `text` what the page shows. */
export interface Row {
  readonly field: string;
  readonly label: string;
  readonly value: number | string;
  readonly text: string;
}

/** A row; its text is the value's unless given. */
export const row = (field: string, label: string, value: number | string, text = String(value)): Row => ({
  field,
  label,
  value,
  text,
});
