// What the browser tests share: headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: JSON messages separated by NUL on fds 3 and 4), so no WebSocket client
// is needed. Chromium runs in a process group of its own that is killed on every way out, and the
// whole run is bounded by a timer.
//
//   const { run } = require("./browser_cdp.js");
//   run("browser_x", chromiumPath, userDataDir, timeoutMs, async ({ cdp, send, evaluate }) => report);
//
// run prints the report as one JSON line on stdout and exits 0, or prints why on stderr (with
// Chromium's stderr) and exits 1.
"use strict";

const { spawn } = require("child_process");

// A minimal DevTools protocol client over Chromium's pipe.
class Cdp {
  constructor(input, output) {
    this.input = input;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, method}
    this.waiters = []; // {method, resolve}
    this.events = []; // every event, for later inspection
    let buffer = "";
    output.setEncoding("utf8");
    output.on("data", (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\0")) >= 0) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        this.dispatch(message);
      }
    });
  }

  dispatch(message) {
    if (message.id !== undefined) {
      const p = this.pending.get(message.id);
      if (!p) return;
      this.pending.delete(message.id);
      if (message.error) p.reject(new Error(`${p.method}: ${JSON.stringify(message.error)}`));
      else p.resolve(message.result);
      return;
    }
    this.events.push(message);
    this.waiters = this.waiters.filter((w) => {
      if (w.method !== message.method) return true;
      w.resolve(message.params);
      return false;
    });
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    const message = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.input.write(JSON.stringify(message) + "\0");
    });
  }

  // The next event named method, after this call.
  next(method) {
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }

  // The page's uncaught exceptions and console errors so far.
  errors() {
    return {
      exceptions: this.events
        .filter((e) => e.method === "Runtime.exceptionThrown")
        .map((e) => JSON.stringify(e.params.exceptionDetails).slice(0, 500)),
      consoleErrors: this.events
        .filter((e) => e.method === "Runtime.consoleAPICalled" && e.params.type === "error")
        .map((e) => JSON.stringify(e.params.args).slice(0, 500)),
    };
  }
}

function run(name, chromiumPath, userDataDir, timeoutMs, body) {
  let browser = null;
  let browserErr = "";
  let finished = false;

  // Kills Chromium's whole process group; safe to call more than once and from 'exit'.
  function killBrowser() {
    if (browser === null || browser.exitCode !== null || browser.signalCode !== null) return;
    try {
      process.kill(-browser.pid, "SIGKILL");
    } catch (e) {
      /* already gone */
    }
  }

  function fail(message) {
    killBrowser();
    process.stderr.write(`${name}: ${message}\n`);
    if (browserErr) process.stderr.write(`chromium's stderr (tail):\n${browserErr.slice(-4000)}\n`);
    process.exit(1);
  }

  process.on("exit", killBrowser);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => fail(`got ${sig}`));
  const deadline = setTimeout(() => fail(`no result after ${timeoutMs} ms`), timeoutMs);

  async function main() {
    browser = spawn(
      chromiumPath,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--mute-audio",
        `--user-data-dir=${userDataDir}`,
        "--remote-debugging-pipe",
        "about:blank",
      ],
      { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], detached: true },
    );
    browser.stderr.setEncoding("utf8");
    browser.stderr.on("data", (d) => {
      browserErr = (browserErr + d).slice(-16000);
    });
    browser.on("exit", (code, signal) => {
      if (!finished) fail(`chromium exited early (code ${code}, signal ${signal})`);
    });
    const cdp = new Cdp(browser.stdio[3], browser.stdio[4]);

    const { targetInfos } = await cdp.send("Target.getTargets");
    let page = targetInfos.find((t) => t.type === "page");
    const targetId = page ? page.targetId : (await cdp.send("Target.createTarget", { url: "about:blank" })).targetId;
    const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
    const send = (method, params = {}) => cdp.send(method, params, sessionId);
    await send("Page.enable");
    await send("Runtime.enable");

    // Evaluates an expression in the page (promises awaited) and returns its value.
    async function evaluate(expression) {
      const r = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
      if (r.exceptionDetails)
        throw new Error(`evaluate ${expression.slice(0, 80)}: ${JSON.stringify(r.exceptionDetails)}`);
      return r.result.value;
    }

    const report = await body({ cdp, send, evaluate });
    finished = true;
    await cdp.send("Browser.close").catch(() => {});
    return report;
  }

  main().then(
    (report) => {
      clearTimeout(deadline);
      process.stdout.write(JSON.stringify(report) + "\n", () => {
        killBrowser();
        process.exit(0);
      });
    },
    (err) => fail(err && err.stack ? err.stack : String(err)),
  );
}

module.exports = { run };
