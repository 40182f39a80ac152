import type { Dispatcher } from 'undici';
import type { GuardedConnect } from './guarded-connector.ts';
import { loadUndici } from './load-undici.ts';

/**
 * The ports the fetch standard blocks ("bad ports", https://fetch.spec.whatwg.org/#port-blocking). Browsers block
 * them so that a web page cannot make its visitor's browser talk HTTP to a mail, IRC or SSH server. The guard's
 * policy is about addresses, not ports (see `docs/decisions/outbound-guard-ports.md`), so it does not inherit the
 * list: undici's fetch still applies it, and requests to these ports are sent in a way it does not see.
 */
const fetchBadPorts: ReadonlySet<string> = new Set([
  '0',
  '1',
  '7',
  '9',
  '11',
  '13',
  '15',
  '17',
  '19',
  '20',
  '21',
  '22',
  '23',
  '25',
  '37',
  '42',
  '43',
  '53',
  '69',
  '77',
  '79',
  '87',
  '95',
  '101',
  '102',
  '103',
  '104',
  '109',
  '110',
  '111',
  '113',
  '115',
  '117',
  '119',
  '123',
  '135',
  '137',
  '139',
  '143',
  '161',
  '179',
  '389',
  '427',
  '465',
  '512',
  '513',
  '514',
  '515',
  '526',
  '530',
  '531',
  '532',
  '540',
  '548',
  '554',
  '556',
  '563',
  '587',
  '601',
  '636',
  '989',
  '990',
  '993',
  '995',
  '1719',
  '1720',
  '1723',
  '2049',
  '3659',
  '4045',
  '4190',
  '5060',
  '5061',
  '6000',
  '6566',
  '6665',
  '6666',
  '6667',
  '6668',
  '6669',
  '6679',
  '6697',
  '10080',
]);

/** True when undici's fetch would refuse `url` for its port alone. */
export function isFetchBadPort(url: URL): boolean {
  return url.port !== '' && fetchBadPorts.has(url.port);
}

/**
 * One dispatcher per bad port, made on first use (at most one per port of the list). Undici's fetch is handed the
 * URL with its default port instead; this dispatcher's connector dials the real port (through the same guarded
 * connector, so every check still applies) and writes the real `Host` (with the port) on every request. A
 * dispatcher per port keeps pooled connections of different ports of one host apart.
 */
export function createBadPortDispatchers(connect: GuardedConnect) {
  const dispatchers = new Map<string, { readonly dispatcher: Dispatcher; readonly agent: Dispatcher }>();
  return {
    /** The dispatcher for requests to `url`'s (bad) port, and the URL to hand undici's fetch instead. */
    route(url: URL): { readonly dispatcher: Dispatcher; readonly url: URL } {
      const port = url.port;
      let entry = dispatchers.get(port);
      if (entry === undefined) {
        const agent = new (loadUndici().Agent)({
          connect: (options, callback) => connect({ ...options, port }, callback),
        });
        const composed = agent.compose(
          (dispatch) => (options, handler) =>
            dispatch(
              { ...options, headers: withHost(options.headers, hostOf(options.origin, port)) },
              handler,
            ),
        );
        entry = { dispatcher: composed, agent };
        dispatchers.set(port, entry);
      }
      const sent = new URL(url);
      sent.port = '';
      return { dispatcher: entry.dispatcher, url: sent };
    },
    async close(): Promise<void> {
      await Promise.all([...dispatchers.values()].map(({ agent }) => agent.close()));
      dispatchers.clear();
    },
  };
}

function hostOf(origin: Dispatcher.DispatchOptions['origin'], port: string): string {
  return `${new URL(String(origin)).hostname}:${port}`;
}

function withHost(
  headers: Dispatcher.DispatchOptions['headers'],
  host: string,
): Record<string, string | string[] | undefined> {
  const result: Record<string, string | string[] | undefined> = {};
  if (Array.isArray(headers)) {
    for (let index = 0; index + 1 < headers.length; index += 2)
      result[String(headers[index])] = String(headers[index + 1]);
  } else if (headers !== null && headers !== undefined && Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<[string, string | string[] | undefined]>)
      result[name] = value;
  } else if (headers !== null && headers !== undefined && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>))
      result[name] = value;
  }
  for (const name of Object.keys(result)) if (name.toLowerCase() === 'host') delete result[name];
  result.host = host;
  return result;
}
