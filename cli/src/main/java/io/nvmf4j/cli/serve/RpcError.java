package io.nvmf4j.cli.serve;

/**
 * A JSON-RPC 2.0 error (section 5.1 of the specification): the code and a message that says what was wrong. Thrown
 * by the management operations, turned into the error member of the response; never a stack trace.
 */
public final class RpcError extends Exception {
    private static final long serialVersionUID = 1L;

    /** Invalid JSON was received. */
    public static final int PARSE_ERROR = -32700;
    /** The JSON sent is not a valid Request object. */
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;
    /** A valid request the target refused in its current state (server error range -32000..-32099). */
    public static final int REFUSED = -32000;

    private final int code;

    public RpcError(int code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public static RpcError invalidParams(String message) {
        return new RpcError(INVALID_PARAMS, message);
    }

    public static RpcError refused(String message) {
        return new RpcError(REFUSED, message);
    }

    public int code() {
        return code;
    }
}
