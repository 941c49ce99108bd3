package io.nvmf4j.protocol;

/**
 * A queue identifier (QID): 0 is the admin queue, 1..65534 I/O queues (NVMe Base 2.0, "Queueing Data Structures";
 * the Connect command
 * carries it in SQE bytes 43:42, the RDMA CM request in private-data bytes 3:2).
 */
public record QueueId(int value) implements Comparable<QueueId> {

    public static final QueueId ADMIN = new QueueId(0);

    public QueueId {
        Wire.checkUnsigned("queue id", value, 16);
    }

    public static QueueId of(int value) {
        return value == 0 ? ADMIN : new QueueId(value);
    }

    public boolean isAdmin() {
        return value == 0;
    }

    @Override
    public int compareTo(QueueId o) {
        return Integer.compare(value, o.value);
    }

    @Override
    public String toString() {
        return isAdmin() ? "qid 0 (admin)" : "qid " + value;
    }
}
