// Policy sources imported as text (`with { type: "text" }`), which also embeds them in the compiled executable.
declare module "*.rego" {
  const text: string;
  export default text;
}
