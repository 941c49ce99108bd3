package io.nvmf4j.protocol;

/**
 * A command identifier (CID, SQE bytes 3:2), unique among the outstanding commands of one submission queue
 * (NVMe Base 2.0, "Submission Queue Entry"). The completion echoes it.
 */
public record CommandId(int value) {

    public CommandId {
        Wire.checkUnsigned("command id", value, 16);
    }

    public static CommandId of(int value) {
        return new CommandId(value);
    }

    @Override
    public String toString() {
        return "cid " + value;
    }
}
