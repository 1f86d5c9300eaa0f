import { type FilterClass, kindById, registerKind } from '@bloomkit/filters';
import { ExceptionFilter } from './exception-filter.js';

export { type ExceptionCreateOptions, ExceptionFilter, exceptionsKind } from './exception-filter.js';

// The table of `@bloomkit/filters` reads this kind once this package is loaded: `deserializeAny`, the CLI and
// `@bloomkit/redis` then open exception files like any other. (The table cannot list it itself: this kind reads its
// nested filter through the table, so the table's package cannot depend on this one.)
if (kindById(ExceptionFilter.kind.id) === undefined) registerKind(ExceptionFilter as unknown as FilterClass);
