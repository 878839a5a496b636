// The package ships no types; this is the part of its output the tests read.
declare module "parse-prometheus-text-format" {
  interface MetricFamily {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED";
    metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }[];
  }
  export default function parse(text: string): MetricFamily[];
}
