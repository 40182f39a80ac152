/**
 * The version this service reports on `GET /health`. Clients gate features on it (sessions and streaming need
 * 0.4.0, the protocol level where Onyx's code-interpreter service introduced them, so clients of either service
 * gate alike, see docs/decisions/differences-from-onyx.md; the `skills` field of execute and sessions needs
 * 1.1.0), so bump it when the API grows.
 */
export const INTERPRETER_VERSION = '1.1.0';
