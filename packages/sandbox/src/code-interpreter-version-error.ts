import { ToolbusError } from '@toolbus/spec';

/**
 * A client method needs a newer service than the one at the base URL. Raised before any request is sent, instead
 * of letting the call run into a 404 on an endpoint the old service does not have.
 */
export class CodeInterpreterVersionError extends ToolbusError {
  static override readonly errorName = 'CodeInterpreterVersionError';

  readonly method: string;
  readonly serverVersion: string;
  readonly requiredVersion: string;

  constructor(options: { method: string; serverVersion: string; requiredVersion: string }) {
    super({
      code: 'code_interpreter_version',
      message: `${options.method} needs code interpreter ${options.requiredVersion} or newer; the server reports ${options.serverVersion}`,
    });
    this.method = options.method;
    this.serverVersion = options.serverVersion;
    this.requiredVersion = options.requiredVersion;
  }
}
