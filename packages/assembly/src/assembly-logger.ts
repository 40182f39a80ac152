import type { WarningLogger } from '@toolbus/spec';

/** Where assembly reports what it left out and why. Only names and reasons are passed, never secret values. */
export type AssemblyLogger = WarningLogger;
