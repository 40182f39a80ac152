/**
 * What a run (or session command) whose stream broke ends with: the connection to the service broke before its
 * result, which is how a service that stopped (killed, restarted, out of memory) looks from here. Written for the
 * model, which reads it through run_python: the code was not at fault, and running it again will probably work
 * (on another service, or on this one once it is back).
 */
export const SERVICE_STOPPED_MESSAGE =
  'the code interpreter service stopped while the code was running (its connection broke before the result), so this run has no result; the code was not at fault, and running it again will probably work';
