// Bun imports these as text (`with { type: "text" }`), which also embeds them in the compiled executable.
declare module "*.sql" {
  const text: string;
  export default text;
}
