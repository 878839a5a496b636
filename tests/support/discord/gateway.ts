/**
 * The gateway as Discord documents it (Topics > Gateway; Opcodes and Status Codes): HELLO on connect, IDENTIFY
 * answered by READY and a GUILD_CREATE per guild, HEARTBEAT answered by HEARTBEAT_ACK, RESUME answered by the
 * missed dispatches and RESUMED (or INVALID_SESSION when the session is unknown), close code 4004 for a refused
 * token and 4003 for a payload before identifying. Tests drive the rest: drop the socket, ask for a RECONNECT,
 * invalidate the session, dispatch an event.
 */
import type { Server, ServerWebSocket } from "bun";
import type { Json, World } from "./world.ts";

const op = { dispatch: 0, heartbeat: 1, identify: 2, resume: 6, reconnect: 7, invalidSession: 9, hello: 10, heartbeatAck: 11 } as const;

interface Session {
  id: string;
  sequence: number;
  /** Every dispatch sent in this session, for replay on RESUME. */
  sent: { s: number; t: string; d: unknown }[];
  socket?: ServerWebSocket<SocketData>;
}

export interface SocketData {
  session?: Session;
  /** A connection made to the resume URL rather than the gateway URL. */
  resumeUrl: boolean;
}

export interface GatewayLog {
  connections: number;
  identifies: number;
  resumes: number;
  heartbeats: number;
  /** Intents each IDENTIFY asked for. */
  intents: number[];
}

export class GatewayStandIn {
  readonly log: GatewayLog = { connections: 0, identifies: 0, resumes: 0, heartbeats: 0, intents: [] };
  readonly #sessions = new Map<string, Session>();
  readonly #listeners = new Set<() => void>();
  #counter = 0;
  /** Refuse every new connection's handshake (the gateway is unreachable) while set. */
  refuseConnections = false;

  constructor(
    private readonly world: World,
    private readonly token: () => string,
    private readonly urls: () => { gateway: string; resume: string },
    readonly heartbeatIntervalMs: number,
  ) {}

  /** Called from the HTTP server's fetch for the gateway paths. */
  upgrade(request: Request, server: Server<SocketData>, resumeUrl: boolean): Response | undefined {
    const url = new URL(request.url);
    if (url.searchParams.get("v") !== "10" || url.searchParams.get("encoding") !== "json")
      return new Response("gateway v10 with encoding=json only", { status: 400 });
    if (this.refuseConnections) return new Response("unavailable", { status: 503 });
    if (server.upgrade(request, { data: { resumeUrl } })) return undefined;
    return new Response("expected a WebSocket upgrade", { status: 426 });
  }

  readonly handlers = {
    open: (ws: ServerWebSocket<SocketData>) => {
      this.log.connections++;
      this.#send(ws, { op: op.hello, d: { heartbeat_interval: this.heartbeatIntervalMs } });
      this.#changed();
    },
    message: (ws: ServerWebSocket<SocketData>, raw: string | Buffer) => {
      let payload: { op: number; d: any };
      try {
        payload = JSON.parse(String(raw));
      } catch {
        return ws.close(4002, "Decode error");
      }
      switch (payload.op) {
        case op.heartbeat:
          this.log.heartbeats++;
          this.#send(ws, { op: op.heartbeatAck });
          break;
        case op.identify:
          this.#identify(ws, payload.d);
          break;
        case op.resume:
          this.#resume(ws, payload.d);
          break;
        default:
          if (!ws.data.session) return ws.close(4003, "Not authenticated");
      }
      this.#changed();
    },
    close: (ws: ServerWebSocket<SocketData>) => {
      if (ws.data.session?.socket === ws) ws.data.session.socket = undefined;
      this.#changed();
    },
  };

  /** Sends a dispatch on every live session, recorded for replay. */
  dispatch(t: string, d: unknown): void {
    for (const session of this.#sessions.values()) this.#dispatch(session, t, d);
  }

  /** Cuts every live socket without a close frame, as a network failure would (the client sees 1006). */
  drop(): void {
    for (const session of this.#sessions.values()) session.socket?.terminate();
  }

  /** Asks every client to reconnect and resume (opcode 7). */
  askReconnect(): void {
    for (const session of this.#sessions.values()) if (session.socket) this.#send(session.socket, { op: op.reconnect, d: null });
  }

  /** Invalidates every session (opcode 9); `resumable` false makes clients identify afresh. */
  invalidate(resumable: boolean): void {
    for (const [id, session] of this.#sessions) {
      if (!resumable) this.#sessions.delete(id);
      if (session.socket) this.#send(session.socket, { op: op.invalidSession, d: resumable });
    }
  }

  get liveSockets(): number {
    return [...this.#sessions.values()].filter((s) => s.socket).length;
  }

  /** Resolves once `check` holds, re-checked after every gateway event. */
  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    const listener = () => {
      if (!check()) return;
      this.#listeners.delete(listener);
      resolve();
    };
    this.#listeners.add(listener);
    return promise;
  }

  close(): void {
    for (const session of this.#sessions.values()) session.socket?.close(1001, "Going away");
    this.#sessions.clear();
  }

  #identify(ws: ServerWebSocket<SocketData>, d: Json) {
    if (ws.data.session) return ws.close(4005, "Already authenticated");
    if (d?.token !== this.token()) return ws.close(4004, "Authentication failed");
    this.log.identifies++;
    this.log.intents.push(d.intents);
    const session: Session = { id: `session-${++this.#counter}`, sequence: 0, sent: [], socket: ws };
    this.#sessions.set(session.id, session);
    ws.data.session = session;
    const { world } = this;
    this.#dispatch(session, "READY", {
      v: 10,
      user: world.bot,
      guilds: [...world.guilds.keys()].map((id) => ({ id, unavailable: true })),
      session_id: session.id,
      resume_gateway_url: this.urls().resume,
      shard: d.shard ?? [0, 1],
      application: { id: world.applicationId, flags: 0 },
    });
    for (const guild of world.guilds.values()) {
      const channels = [...world.channels.values()].filter((c) => c.guild_id === guild.id);
      this.#dispatch(session, "GUILD_CREATE", {
        ...guild,
        member_count: world.members.get(guild.id)?.size ?? 0,
        roles: world.roles.get(guild.id) ?? [],
        channels: channels.filter((c) => c.type !== 11 && c.type !== 12),
        threads: channels.filter((c) => c.type === 11 || c.type === 12),
        joined_at: new Date().toISOString(),
        large: false,
        unavailable: false,
      });
    }
  }

  #resume(ws: ServerWebSocket<SocketData>, d: Json) {
    this.log.resumes++;
    const session = this.#sessions.get(d?.session_id);
    if (d?.token !== this.token()) return ws.close(4004, "Authentication failed");
    if (!session) return this.#send(ws, { op: op.invalidSession, d: false });
    session.socket?.close(4009, "Session replaced");
    session.socket = ws;
    ws.data.session = session;
    for (const missed of session.sent.filter((e) => e.s > Number(d.seq))) this.#send(ws, { op: op.dispatch, ...missed });
    this.#dispatch(session, "RESUMED", null);
  }

  #dispatch(session: Session, t: string, d: unknown) {
    const event = { s: ++session.sequence, t, d };
    session.sent.push(event);
    if (session.socket) this.#send(session.socket, { op: op.dispatch, ...event });
  }

  #send(ws: ServerWebSocket<SocketData>, payload: Json) {
    ws.send(JSON.stringify({ s: null, t: null, d: null, ...payload }));
  }

  #changed() {
    for (const listener of [...this.#listeners]) listener();
  }
}
