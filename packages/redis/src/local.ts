import type { AnyFilter } from '@bloomkit/filters';

/**
 * A local filter a Redis filter converts to and from (export, import): a filter of a kind in the table of
 * `@bloomkit/filters` (a registered single kind has the same API as the built-in ones it shares a storage with).
 */
export type LocalFilter = AnyFilter;

/** A local filter of a single kind: its payload is what one store's strings hold (`payloadParts`, core's engine). */
export type SingleLocalFilter = LocalFilter & { payloadParts(): Uint8Array[] };
