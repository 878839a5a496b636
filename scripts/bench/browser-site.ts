/** The browser benchmark's web site in a process of its own: prints its origin on stdout and serves until killed. */
import { startSite } from "../../tests/browser/site.ts";

const site = startSite();
console.log(site.origin);
