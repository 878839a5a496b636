/**
 * The public A2A SDK surface: models, task manager, server, client and discovery. Programs and tests import
 * from here; inside src/a2a, modules import each other directly.
 */
export { AgentCard, AuthScheme, Capability, type AgentCardDict, type AgentCardFields, type AuthSchemeDict, type CapabilityDict } from "./card.ts";
export { A2AClient, type A2AClientOptions, type SendTaskOptions } from "./client.ts";
export { cardPath, cardUrl, DiscoveryClient, type DiscoveryClientOptions, type SpiffeResolver } from "./discovery.ts";
export {
  A2AAuthorizationError,
  A2AClientError,
  A2ATimeoutError,
  DiscoveryError,
  RpcCode,
  RpcError,
  TaskNotCancelableError,
  TaskNotFoundError,
  TaskStateError,
  TaskStatusError,
  TaskSubmissionError,
  TaskTimeoutError,
  UnauthorizedError,
  UnsupportedTaskTypeError,
  ValueError,
} from "./errors.ts";
export type { TaskHandler, TaskHandlerContext, TaskHandlerOptions } from "./handlers.ts";
export { A2AServer, peerMatches, type A2AServerOptions } from "./http.ts";
export { finalStates, TaskStates, type MessageInput, type MessagePart, type Role, type TaskArtifact, type TaskDict, type TaskMessage, type TaskState } from "./model.ts";
export { TaskManager, type NewTask, type TaskManagerOptions, type TaskUpdate } from "./service.ts";
export { canMove, Task, type TaskFields } from "./task.ts";
