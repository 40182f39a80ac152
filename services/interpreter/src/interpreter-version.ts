/**
 * The version this service reports on `GET /health`. Clients gate features on it (sessions and streaming need
 * 0.4.0, the protocol level where the Onyx service introduced them), so bump it when the API grows.
 */
export const INTERPRETER_VERSION = '1.0.0';
