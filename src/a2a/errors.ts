/**
 * A2A errors and their JSON-RPC wire form. Server-side errors carry their JSON-RPC code; the client's errors
 * say which call failed and keep the server's code and data when there was one.
 */

/** JSON-RPC 2.0 codes, and the application codes (aligned with the public A2A protocol where it has one). */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  TaskNotFound: -32001,
  TaskNotCancelable: -32002,
  PushNotificationNotSupported: -32003,
  UnsupportedTaskType: -32004,
  ExtendedCardNotConfigured: -32007,
  VersionNotSupported: -32009,
  Unauthorized: -32020,
} as const;

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** An error the JSON-RPC layer answers as it is. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }

  toBody(): RpcErrorBody {
    return { code: this.code, message: this.message, ...(this.data === undefined ? {} : { data: this.data }) };
  }
}

export class TaskNotFoundError extends RpcError {
  constructor(id: string) {
    super(RpcCode.TaskNotFound, `Task not found: ${id}`, { id });
    this.name = "TaskNotFoundError";
  }
}

export class TaskNotCancelableError extends RpcError {
  constructor(id: string, state: string) {
    super(RpcCode.TaskNotCancelable, `Task ${id} is ${state}; a final task cannot be cancelled`, { id, state });
    this.name = "TaskNotCancelableError";
  }
}

export class UnsupportedTaskTypeError extends RpcError {
  constructor(type: string, supported: string[]) {
    super(RpcCode.UnsupportedTaskType, `Unsupported task type: ${type}; this agent runs: ${supported.join(", ") || "nothing yet"}`, { type, supported });
    this.name = "UnsupportedTaskTypeError";
  }
}

export class UnauthorizedError extends RpcError {
  constructor(action: string, reason: string, auditId?: string) {
    super(RpcCode.Unauthorized, `Unauthorized: ${action} denied (${reason})`, { action, reason, ...(auditId ? { auditId } : {}) });
    this.name = "UnauthorizedError";
  }
}

/** A2A UnsupportedOperationError: the request is well formed, but this is not something the agent does. */
export const unsupportedOperation = (message: string, data?: unknown) => new RpcError(RpcCode.UnsupportedTaskType, message, data);

export const invalidParams = (message: string, data?: unknown) => new RpcError(RpcCode.InvalidParams, message, data);

/** A value that breaks a model rule (an agent card URL that is not http(s), ...). */
export class ValueError extends Error {
  override name = "ValueError";
}

/** A move the task machine does not allow from the task's state (a final task never moves again). */
export class TaskStateError extends Error {
  constructor(
    readonly taskId: string,
    readonly from: string,
    readonly to: string,
  ) {
    super(`Task ${taskId} cannot move from ${from} to ${to}`);
    this.name = "TaskStateError";
  }
}

/** `waitForCompletion` gave up before the task reached a final state. */
export class TaskTimeoutError extends Error {
  constructor(
    readonly taskId: string,
    readonly seconds: number,
  ) {
    super(`Task ${taskId} did not finish within ${seconds}s`);
    this.name = "TaskTimeoutError";
  }
}

// --- client side ---

export class A2AClientError extends Error {
  /** The JSON-RPC error code, when the server answered with one. */
  readonly code?: number;
  readonly data?: unknown;

  constructor(message: string, options: { code?: number; data?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "A2AClientError";
    this.code = options.code;
    this.data = options.data;
  }
}

export class TaskSubmissionError extends A2AClientError {
  override name = "TaskSubmissionError";
}

export class TaskStatusError extends A2AClientError {
  override name = "TaskStatusError";
}

export class DiscoveryError extends A2AClientError {
  override name = "DiscoveryError";
}

export class A2ATimeoutError extends A2AClientError {
  override name = "A2ATimeoutError";
}

/** The outbound authorization check refused the call; nothing was sent. */
export class A2AAuthorizationError extends A2AClientError {
  override name = "A2AAuthorizationError";
}
