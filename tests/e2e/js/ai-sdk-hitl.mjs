// Tool approval (HITL) through the AI SDK v6 protocol, with the official client pieces.
//
//   node ai-sdk-hitl.mjs <base-url> <thread-id> <approved: true|false>
//
// Turn 1 streams a tool call that needs approval (`tool-approval-request`). The client then
// answers the way `addToolApprovalResponse` does (part state `approval-responded`) and sends
// the conversation again; turn 2 continues the same assistant message.
import { DefaultChatTransport, readUIMessageStream } from "ai";

const [base, threadId, approvedArg] = process.argv.slice(2);
const approved = approvedArg !== "false";
const report = { errors: [], first: null, second: null, secondTypes: [] };

const transport = new DefaultChatTransport({
  api: `${base}/v1/ai-sdk/chat`,
  prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
    body: { id, threadId, messages, trigger, messageId },
  }),
});

async function turn(messages, last, types) {
  const stream = await transport.sendMessages({
    chatId: threadId,
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const [a, b] = stream.tee();
  const typesDone = (async () => {
    for await (const chunk of a) types?.push(chunk.type);
  })();
  let message = null;
  for await (const m of readUIMessageStream({
    message: last,
    stream: b,
    terminateOnError: true,
    onError: (error) => report.errors.push(String(error)),
  })) {
    message = structuredClone(m);
  }
  await typesDone;
  return message;
}

try {
  const user = { id: `u-${Date.now()}`, role: "user", parts: [{ type: "text", text: "please deploy" }] };
  const first = await turn([user], undefined, null);
  report.first = structuredClone(first);
  const answered = structuredClone(first);
  for (const part of answered.parts) {
    if (part.type === "tool-deploy" && part.state === "approval-requested") {
      part.state = "approval-responded";
      part.approval = { ...part.approval, approved, reason: approved ? undefined : "no" };
    }
  }
  report.second = await turn([user, answered], answered, report.secondTypes);
} catch (error) {
  report.errors.push(String(error?.stack ?? error));
}

process.stdout.write(JSON.stringify(report));
