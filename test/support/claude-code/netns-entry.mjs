// Runs inside a fresh network namespace (`unshare -n`): brings loopback up, forwards fixed
// loopback ports to Unix sockets the test process listens on (the namespace has no other way
// out, and Unix sockets live in the file system, not in the network namespace), then runs the
// command and exits with its status. Plain JavaScript, so it starts without a TypeScript loader.
//
// Usage: node netns-entry.mjs <config.json>
//   { "forwards": [{ "port": 40001, "socket": "/tmp/x/api.sock" }],
//     "command": "/path/claude", "args": [...], "env": {...}, "cwd": "/tmp/x/project",
//     "stdin": "text or null", "timeoutMs": 60000 }
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, createServer } from "node:net";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));

const up = spawnSync("ip", ["link", "set", "lo", "up"], { encoding: "utf8" });
if (up.status !== 0) {
  process.stderr.write(`netns-entry: cannot bring loopback up: ${up.error?.message ?? up.stderr}\n`);
  process.exit(90);
}

const listen = (port, socket) =>
  new Promise((resolve, reject) => {
    const server = createServer((client) => {
      const upstream = connect(socket);
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", drop);
      upstream.on("error", drop);
    });
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

const servers = await Promise.all((config.forwards ?? []).map((f) => listen(f.port, f.socket)));

const child = spawn(config.command, config.args ?? [], {
  cwd: config.cwd,
  env: config.env,
  stdio: [config.stdin == null ? "ignore" : "pipe", "inherit", "inherit"],
  detached: true,
});
if (config.stdin != null) child.stdin.end(config.stdin);

let timedOut = false;
const killTree = (signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
};
const timer = setTimeout(() => {
  timedOut = true;
  process.stderr.write(`netns-entry: ${config.command} still running after ${config.timeoutMs} ms; killed\n`);
  killTree("SIGKILL");
}, config.timeoutMs ?? 60_000);
for (const s of ["SIGTERM", "SIGINT"])
  process.on(s, () => {
    killTree("SIGKILL");
    process.exit(143);
  });

child.on("exit", (code, signal) => {
  clearTimeout(timer);
  // Hooks Claude Code left running in the background die with the namespace's servers.
  killTree("SIGKILL");
  for (const s of servers) s.close();
  process.exit(timedOut ? 124 : (code ?? (signal ? 128 : 1)));
});
child.on("error", (error) => {
  process.stderr.write(`netns-entry: cannot start ${config.command}: ${error.message}\n`);
  process.exit(127);
});
