"""Who a client is: the authentication of SASL listeners (`sasl`). Reached by handlers
through `ctx.broker.sasl`, like the coordinators, not through the controller interface."""
