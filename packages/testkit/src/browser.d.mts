import type { Server } from 'node:http';

/** The repository's root. */
export declare const WORKSPACE_ROOT: string;

/** The marker an HTML page carries where the server writes the import map. */
export declare const IMPORT_MAP_MARKER: string;

/** What a page serves at a path: a file on disk, or a body and its content type. */
export type PageFile = string | { readonly body: string | Uint8Array; readonly type: string };

/**
 * The import map of the workspace packages `names` and their dependencies' closure, and the directory each served
 * URL prefix maps to.
 */
export declare function workspaceImportMap(
  names: readonly string[],
  root?: string,
): { imports: Record<string, string>; served: Map<string, string> };

/** A read-only server of a page (`page(path)`) and the workspace packages `names` need, with their import map. */
export declare function workspaceServer(
  names: readonly string[],
  page: (path: string) => PageFile | undefined,
  root?: string,
): Server;
