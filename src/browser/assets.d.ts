// axe-core's browser bundle, imported as text (`with { type: "text" }`), which also embeds it in the compiled executable.
declare module "axe-core/axe.min.js" {
  const source: string;
  export default source;
}
