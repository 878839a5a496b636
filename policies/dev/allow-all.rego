package platform.authz

# Development only: every request is allowed. The runtime refuses this module outside
# `environment: development`. It defines nothing but `allow`, so it also composes with authz.rego.

allow := true
