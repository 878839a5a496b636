// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API before it loads.
// A module of its own, imported first, so the compiled executable also runs it before @peculiar/x509.
import "reflect-metadata";
