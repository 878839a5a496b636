/**
 * Listen options for every listener of ours. Elysia asks Bun for SO_REUSEPORT by default, under which a second
 * process binds a port already in use without an error and the two split the connections between them; ours
 * bind exclusively, so a port in use is an EADDRINUSE at once.
 */
export const exclusively = (hostname: string, port: number) => ({ hostname, port, reusePort: false });
