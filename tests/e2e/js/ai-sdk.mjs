// Drives an Awaken server with the official AI SDK v6 client pieces and prints a JSON report.
//
//   node ai-sdk.mjs <base-url> <thread-id>
//
// DefaultChatTransport sends a useChat request (and validates every streamed chunk against
// the `ai` package's UI-message-chunk schema); readUIMessageStream rebuilds the assistant
// message from those chunks exactly as useChat does.
import { DefaultChatTransport, readUIMessageStream } from "ai";

const [base, threadId] = process.argv.slice(2);
const report = { headers: {}, chunkTypes: [], errors: [], message: null, resumeAfterFinish: null };

const recordingFetch = async (url, init) => {
  const response = await fetch(url, init);
  if (init?.method === "POST") {
    report.status = response.status;
    for (const name of ["content-type", "cache-control", "x-vercel-ai-ui-message-stream"]) {
      report.headers[name] = response.headers.get(name);
    }
  }
  return response;
};

const transport = new DefaultChatTransport({
  api: `${base}/v1/ai-sdk/chat`,
  fetch: recordingFetch,
  // The reference frontend sends the thread id explicitly (the chat id is not the thread id).
  prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
    body: { id, threadId, messages, trigger, messageId },
  }),
});

const user = { id: `u-${Date.now()}`, role: "user", parts: [{ type: "text", text: "Weather in Tokyo?" }] };

try {
  const stream = await transport.sendMessages({
    chatId: threadId,
    messages: [user],
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const [forTypes, forMessage] = stream.tee();
  const typesDone = (async () => {
    for await (const chunk of forTypes) report.chunkTypes.push(chunk.type);
  })();
  for await (const message of readUIMessageStream({
    stream: forMessage,
    terminateOnError: true,
    onError: (error) => report.errors.push(String(error)),
  })) {
    report.message = message;
  }
  await typesDone;
  // The run is over: the AI SDK resume convention must answer 204 (nothing to resume).
  report.resumeAfterFinish = (await transport.reconnectToStream({ chatId: threadId })) === null;
} catch (error) {
  report.errors.push(String(error?.stack ?? error));
}

process.stdout.write(JSON.stringify(report));
