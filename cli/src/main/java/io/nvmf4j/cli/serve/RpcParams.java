package io.nvmf4j.cli.serve;

import io.nvmf4j.target.SubsystemNqn;

/** The checks of an operator's parameters common to {@link LiveTarget}'s operations: each failure is an RPC error. */
final class RpcParams {

    private RpcParams() {
    }

    static SubsystemNqn nqnOf(String nqn) throws RpcError {
        try {
            return SubsystemNqn.of(nqn);
        } catch (IllegalArgumentException e) {
            throw RpcError.invalidParams(e.getMessage());
        }
    }

    static void requireText(String name, String value) throws RpcError {
        if (value == null || value.isBlank()) {
            throw RpcError.invalidParams("missing parameter \"" + name + "\"");
        }
    }

    static boolean parseBoolean(String name, String value) throws RpcError {
        return switch (value == null ? "" : value.toLowerCase(java.util.Locale.ROOT)) {
            case "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> throw RpcError.invalidParams(name + " must be true or false, not \"" + value + "\"");
        };
    }
}
