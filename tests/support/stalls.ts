/** Preloaded by bunfig.toml: every suite fails a test during which the event loop stood still (see loop.ts). */
import { failOnStalls } from "./loop.ts";

failOnStalls();
