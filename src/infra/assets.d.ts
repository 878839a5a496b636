// The parser's wasm files are imported as files (a path), which also embeds them in the compiled executable.
declare module "*.wasm" {
  const path: string;
  export default path;
}
