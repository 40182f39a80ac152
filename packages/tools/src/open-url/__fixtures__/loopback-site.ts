// A small web site on loopback for open_url: articles, a redirect chain, a redirect to the cloud metadata
// address, a large page, a page that never finishes, a PDF, an image, a 404, and a page that echoes its query.
import { type LoopbackHttpServer, startLoopbackHttpServer } from '@toolbus/core/testing';
import { minimalPdf } from '../../content/__fixtures__/minimal-pdf.ts';

export function articleHtml(title: string, paragraph: string): string {
  const filler = 'This paragraph is long enough for the reader view to treat it as the main content of the page. ';
  return `<!doctype html><html><head><title>${title}</title><style>body{color:red}</style><script>var secret = 1;</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>${title}</h1><p>${paragraph}</p><p>${filler.repeat(4)}</p><p>${filler.repeat(3)}</p></article>
<footer>Copyright footer text</footer></body></html>`;
}

export interface LoopbackSite extends LoopbackHttpServer {
  /** Paths requested, in order. */
  paths(): string[];
}

export async function startLoopbackSite(options: { largePageBytes?: number } = {}): Promise<LoopbackSite> {
  const largePageBytes = options.largePageBytes ?? 2 * 1024 * 1024;
  const pdf = minimalPdf(['Quarterly revenue grew by 12 percent.'], 'Quarterly Report');
  const server = await startLoopbackHttpServer((request, response) => {
    const url = new URL(request.url, 'http://site');
    const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
    if (hop) {
      const left = Number(hop[1]);
      response.writeHead(left > 0 ? 302 : 301, { location: left > 0 ? `/hop/${left - 1}` : '/landing' });
      return response.end();
    }
    switch (url.pathname) {
      case '/article':
      case '/bench':
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return response.end(articleHtml('Solar Panels Explained', 'Solar panels turn sunlight into electricity.'));
      case '/landing':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end(articleHtml('Landing Page', 'You arrived after three redirects.'));
      case '/to-metadata':
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' });
        return response.end();
      case '/large': {
        response.writeHead(200, { 'content-type': 'text/html' });
        const block = `<p>${'Large page sentence number. '.repeat(36)}</p>\n`;
        response.write(`<!doctype html><html><head><title>Large Page</title></head><body><h1>Large Page</h1>`);
        let sent = 0;
        const writeMore = () => {
          while (sent < largePageBytes) {
            sent += block.length;
            if (!response.write(block)) return void response.once('drain', writeMore);
          }
          response.end('</body></html>');
        };
        return writeMore();
      }
      case '/slow':
        // Headers and a first chunk, then nothing: only the reader's time limit can end this exchange.
        response.writeHead(200, { 'content-type': 'text/html' });
        response.write('<html><head><title>Slow</title></head><body><p>Still loading');
        return;
      case '/report.pdf':
        response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(pdf.byteLength) });
        return response.end(pdf);
      case '/mislabelled-pdf':
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        return response.end(pdf);
      case '/latin1':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end(
          Buffer.from(
            articleHtml('Caf\u00e9 Menu', 'Cr\u00e8me br\u00fbl\u00e9e costs four euros.').replace(
              '<head>',
              '<head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">',
            ),
            'latin1',
          ),
        );
      case '/notes.txt':
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return response.end('Plain notes: the meeting moved to Thursday.');
      case '/photo.png':
        response.writeHead(200, { 'content-type': 'image/png' });
        return response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
      case '/tracked':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end(articleHtml('Tracked Page', `The query this server saw was [${url.search}].`));
      case '/indexed/handbook':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end(articleHtml('Live Handbook', 'This is the live copy, which should not be fetched.'));
      default:
        response.writeHead(404, { 'content-type': 'text/html' });
        return response.end('<h1>Not found</h1>');
    }
  });
  return Object.assign(server, {
    paths: () => server.received.map((request) => new URL(request.url, 'http://site').pathname),
  });
}
