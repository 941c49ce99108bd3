package io.nvmf4j.target;

/**
 * Which way a command's data moves, from the two low bits of the opcode (NVMe Base 2.0, Figure 28: 01b host to
 * controller, 10b controller to host) or of the fabrics command type. The transport asks this before execution:
 * host-to-controller data must be fetched (RDMA Read, or taken from the capsule) before
 * {@link SubmissionQueue#execute(Request)}; controller-to-host data is sent after completion.
 */
public enum DataDirection {
    NONE,
    HOST_TO_CONTROLLER,
    CONTROLLER_TO_HOST,
    BIDIRECTIONAL;

    /** From the transfer bits 1:0 of an opcode or fabrics command type. */
    public static DataDirection ofOpcode(int opcode) {
        return switch (opcode & 0x3) {
            case 1 -> HOST_TO_CONTROLLER;
            case 2 -> CONTROLLER_TO_HOST;
            case 3 -> BIDIRECTIONAL;
            default -> NONE;
        };
    }
}
