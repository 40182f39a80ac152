/** Where, inside the sandbox, the run's proxy socket, the forwarder and the proxy's CA certificate are bound. */
export const sandboxEgressPaths = {
  socket: '/sandbox/egress.sock',
  forwarder: '/sandbox/egress-forwarder.py',
  caCertificate: '/sandbox/egress-ca.pem',
} as const;

/** The loopback port (inside the sandbox's own network namespace) where the forwarder listens. */
export const sandboxEgressPort = 3128;

/**
 * A small forwarder that runs as the sandbox's first process when the run has egress. The sandbox keeps its own
 * network namespace (only loopback), so the proxy is reachable solely through the Unix socket bound in; this
 * script relays 127.0.0.1:3128 inside the namespace to that socket (one thread, non-blocking), sets the proxy
 * and CA-bundle variables that requests, urllib, curl and pip read, and then runs the real command as its child,
 * exiting with its status. No credential ever passes through here: the proxy adds them on the far side.
 */
export const egressForwarderSource = `
import os, selectors, socket, subprocess, sys, threading

SOCKET_PATH = ${JSON.stringify(sandboxEgressPaths.socket)}
CA_PATH = ${JSON.stringify(sandboxEgressPaths.caCertificate)}
PORT = ${sandboxEgressPort}

listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", PORT))
listener.listen(128)
listener.setblocking(False)
selector = selectors.DefaultSelector()
selector.register(listener, selectors.EVENT_READ, None)
peers = {}

def close_pair(sock):
    other = peers.pop(sock, None)
    for item in (sock, other):
        if item is None:
            continue
        peers.pop(item, None)
        try:
            selector.unregister(item)
        except (KeyError, ValueError):
            pass
        item.close()

def relay():
    while True:
        for key, _ in selector.select():
            sock = key.fileobj
            if sock is listener:
                try:
                    client, _ = listener.accept()
                except OSError:
                    continue
                upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    upstream.connect(SOCKET_PATH)
                except OSError:
                    client.close()
                    upstream.close()
                    continue
                for item in (client, upstream):
                    item.setblocking(False)
                peers[client] = upstream
                peers[upstream] = client
                selector.register(client, selectors.EVENT_READ, None)
                selector.register(upstream, selectors.EVENT_READ, None)
                continue
            other = peers.get(sock)
            if other is None:
                continue
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                close_pair(sock)
                continue
            try:
                other.setblocking(True)
                other.sendall(data)
                other.setblocking(False)
            except OSError:
                close_pair(sock)

threading.Thread(target=relay, daemon=True).start()

proxy = "http://127.0.0.1:%d" % PORT
environment = dict(os.environ)
for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
    environment[name] = proxy
for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
    environment.pop(name, None)
for name in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE", "PIP_CERT", "NODE_EXTRA_CA_CERTS"):
    environment[name] = CA_PATH
child = subprocess.Popen(sys.argv[1:], env=environment)
status = child.wait()
sys.exit(status if status >= 0 else 128 - status)
`;
