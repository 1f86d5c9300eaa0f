import { readFileSync } from 'node:fs';

/**
 * Golden files: a filter serialized by format version 1, committed once and never regenerated. A test decodes
 * the file and checks its answers, and checks that building the same filter today gives the same bytes, so
 * neither the format nor the hashing can change by accident.
 *
 * Every golden filter holds the keys {@link goldenKeys}: 100 ASCII URLs, 20 non-ASCII strings and 20 byte keys.
 */
export function goldenKeys(): (string | Uint8Array)[] {
  const keys: (string | Uint8Array)[] = [];
  for (let i = 0; i < 100; i++) keys.push(`https://golden.example/${i}`);
  for (let i = 0; i < 20; i++) keys.push(`ключ-${i}-🔑`);
  for (let i = 0; i < 20; i++) keys.push(Uint8Array.from({ length: 16 }, (_, j) => (i * 31 + j * 7) & 0xff));
  return keys;
}

/** Keys never added to a golden filter. */
export function goldenAbsentKeys(): string[] {
  return Array.from({ length: 2000 }, (_, i) => `https://absent.example/${i}`);
}

export function readGolden(url: URL): Uint8Array {
  return new Uint8Array(readFileSync(url));
}
