package platform.authz

# The platform's default authorization policy. The input is
# {caller_spiffe_id, callee_spiffe_id, action, context}; the answer is this document:
# `allow`, a `reason` a person can read, and `decision_metadata` for the audit record.
# A request is allowed when any grant below holds (grants combine by OR); all else is denied.
# Configuration lives in data.authz (policies/data.json).

default allow := false

allow if domain_grant

allow if direct_grant

allow if delegated_grant

# Grant 1: caller and callee share a trust domain, and the action is one every workload there may do.
domain_grant if {
	same_trust_domain
	some pattern in data.authz.trust_domain_actions
	glob.match(pattern, [":"], input.action)
}

# Grant 2: the caller's own capability, and clearance for the data it touches.
direct_grant if {
	same_trust_domain
	permits(input.caller_spiffe_id, input.action)
	cleared(input.caller_spiffe_id, classification)
}

# Grant 3: delegation. The delegate acts with the delegator's capabilities (never its own extra
# ones), the delegator must have named it, and both must be cleared for the data.
delegated_grant if {
	same_trust_domain
	delegator := input.context.delegated_by
	spiffe(delegator).trust_domain == caller.trust_domain
	input.caller_spiffe_id in object.get(data.authz.delegations, delegator, [])
	permits(delegator, input.action)
	cleared(delegator, classification)
	cleared(input.caller_spiffe_id, classification)
}

# "spiffe://<trust domain>/<workload path>" split into its parts; undefined for anything else.
spiffe(id) := {"trust_domain": parts[0], "path": concat("/", array.slice(parts, 1, count(parts)))} if {
	is_string(id)
	startswith(id, "spiffe://")
	parts := split(substring(id, 9, -1), "/")
	count(parts) > 1
	regex.match(`^[a-z0-9._-]+$`, parts[0])
}

caller := spiffe(input.caller_spiffe_id)

callee := spiffe(input.callee_spiffe_id)

same_trust_domain if caller.trust_domain == callee.trust_domain

# Requests that name no classification touch public data.
classification := object.get(input, ["context", "data_classification"], "public")

# A capability is an action pattern: "catalog:*" permits "catalog:read" (a wildcard stops at ':').
permits(id, action) if {
	some pattern in object.get(data.authz.capabilities, id, [])
	glob.match(pattern, [":"], action)
}

# Attribute gate: a classification granted to the caller by name...
cleared(id, label) if label in object.get(data.authz.classification_grants, id, [])

# ...or one at or below the caller's clearance level. Unknown labels are never cleared by level.
cleared(id, label) if {
	levels := data.authz.classification_levels
	levels[object.get(data.authz.clearances, id, "public")] >= levels[label]
}

reason := "allowed: action open to the whole trust domain" if domain_grant
else := "allowed: caller capability" if direct_grant
else := "allowed: delegated capability" if delegated_grant
else := "denied: caller_spiffe_id is not a SPIFFE ID" if not caller
else := "denied: callee_spiffe_id is not a SPIFFE ID" if not callee
else := "denied: caller and callee are in different trust domains" if not same_trust_domain
else := "denied: delegation not permitted" if input.context.delegated_by
else := sprintf("denied: caller not cleared for %v data", [classification]) if permits(input.caller_spiffe_id, input.action)
else := "denied: action not permitted for caller"

decision_metadata := {
	"policy": "platform.authz",
	"action": object.get(input, "action", null),
	"data_classification": classification,
	"delegated_by": object.get(input, ["context", "delegated_by"], null),
	"same_trust_domain": same_trust_domain_flag,
}

same_trust_domain_flag := true if same_trust_domain
else := false
