CREATE TABLE "authz_audit" (
	"audit_id" text PRIMARY KEY NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"node" text NOT NULL,
	"caller_spiffe_id" text,
	"callee_spiffe_id" text,
	"action" text NOT NULL,
	"decision" text NOT NULL,
	"reason" text NOT NULL,
	"policy_version" text NOT NULL,
	"context" jsonb NOT NULL,
	"result" jsonb
);
--> statement-breakpoint
CREATE INDEX "authz_audit_at" ON "authz_audit" USING btree ("at");