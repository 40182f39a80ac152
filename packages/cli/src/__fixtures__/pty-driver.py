# Drives a command through a pseudo-terminal, as a person at a terminal would: waits for text, then types.
# Usage: pty-driver.py '<steps as JSON>' command args...
# Steps: ["expect", text] | ["send", text] | ["signal", name] (sends the signal, e.g. "SIGTERM", to the command).
# Prints one JSON object: {"output": everything the terminal showed, "code": exit code, "failed": step or null}.
import json, os, pty, select, signal, sys, time

steps = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])

output = b''
failed = None
def read_for(seconds):
    global output
    ready, _, _ = select.select([fd], [], [], seconds)
    if not ready:
        return False
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        return None
    if not chunk:
        return None
    output += chunk
    return True

seen = 0
for step in steps:
    kind, text = step
    if kind == 'send':
        os.write(fd, text.encode())
        continue
    if kind == 'signal':
        os.kill(pid, getattr(signal, text))
        continue
    deadline = time.time() + 60
    wanted = text.encode()
    while output.find(wanted, seen) < 0:
        if time.time() > deadline or read_for(0.5) is None:
            failed = step
            break
    if failed:
        break
    seen = output.find(wanted, seen) + len(wanted)

deadline = time.time() + 60
while time.time() < deadline:
    if read_for(0.5) is None:
        break
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
print(json.dumps({"output": output.decode('utf-8', 'replace'), "code": code, "failed": failed}))
