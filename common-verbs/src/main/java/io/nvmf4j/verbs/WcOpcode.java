package io.nvmf4j.verbs;

/** What a completion completes ({@code enum ibv_wc_opcode}, the subset nvmf4j uses). */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    LOCAL_INV(6),
    RECV(128);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** The {@code ibv_wc_opcode} number. */
    public int value() {
        return value;
    }

    /** values() clones its array on every call: once here, so that mapping a completion allocates nothing. */
    private static final WcOpcode[] VALUES = values();

    /** The opcode for an {@code ibv_wc_opcode} number, or null if not one of these. */
    public static WcOpcode of(int value) {
        for (WcOpcode opcode : VALUES) {
            if (opcode.value == value) {
                return opcode;
            }
        }
        return null;
    }
}
