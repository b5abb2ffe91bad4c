// The native API client of the playground: same-origin fetch, JSON bodies, SSE over fetch
// streaming (so the Authorization header can be sent, which EventSource cannot do).

const KEY_STORAGE = "awaken.playground.apiKey";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function loadKey() {
  return sessionStorage.getItem(KEY_STORAGE) || "";
}

export function saveKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

function headers(extra = {}) {
  const h = { Accept: "application/json", ...extra };
  const key = loadKey();
  if (key) h.Authorization = `Bearer ${key}`;
  return h;
}

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && typeof body.error === "string") message = body.error;
  } catch (_) { /* not JSON */ }
  return new ApiError(response.status, message);
}

/** One JSON request; returns the decoded body (or null for 204). */
export async function request(method, path, body) {
  const init = { method, headers: headers(), credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  return response.json();
}

/** Parse an SSE byte stream into {id, data} frames (comments such as heartbeats are skipped). */
async function* frames(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let id = null;
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id") id = Number(value);
        else if (field === "data") data.push(value);
      }
      if (data.length) yield { id, data: JSON.parse(data.join("\n")) };
    }
  }
}

/**
 * Stream the events of a request answered with SSE. Calls onEvent(event, seq) per frame and
 * resolves with the response headers once the stream ends; 204 resolves with null.
 */
export async function stream(method, path, body, onEvent, { lastEventId, signal } = {}) {
  const extra = { Accept: "text/event-stream" };
  if (body !== undefined) extra["Content-Type"] = "application/json";
  if (lastEventId !== undefined && lastEventId !== null) extra["Last-Event-ID"] = String(lastEventId);
  const response = await fetch(path, {
    method,
    headers: headers(extra),
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    signal,
  });
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  const started = { runId: response.headers.get("x-awaken-run-id"), threadId: response.headers.get("x-awaken-thread-id") };
  onEvent(null, null, started);
  for await (const frame of frames(response)) onEvent(frame.data, frame.id, started);
  return started;
}

export const api = {
  agents: () => request("GET", "/v1/capabilities").then((c) => c.agents || []),
  threads: () => request("GET", "/v1/threads/summaries?limit=100").then((r) => r.items),
  messages: (threadId) =>
    request("GET", `/v1/threads/${encodeURIComponent(threadId)}/messages?visibility=all&limit=200`),
  runsOf: (threadId) =>
    request("GET", `/v1/threads/${encodeURIComponent(threadId)}/runs?limit=50`).then((r) => r.items),
  run: (runId) => request("GET", `/v1/runs/${encodeURIComponent(runId)}`),
  cancel: (runId) => request("POST", `/v1/runs/${encodeURIComponent(runId)}/cancel`, {}),
  decide: (runId, toolCallId, approved) =>
    request("POST", `/v1/runs/${encodeURIComponent(runId)}/decision`, {
      toolCallId,
      action: approved ? "resume" : "cancel",
      payload: { approved },
    }),
  startRun: (agentId, threadId, text, onEvent) =>
    stream("POST", "/v1/runs", { agentId, ...(threadId ? { threadId } : {}), messages: [{ role: "user", content: text }] }, onEvent),
  runEvents: (runId, after, onEvent) =>
    stream("GET", `/v1/runs/${encodeURIComponent(runId)}/events`, undefined, onEvent, { lastEventId: after }),
};
