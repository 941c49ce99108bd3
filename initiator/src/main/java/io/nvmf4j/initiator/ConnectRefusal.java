package io.nvmf4j.initiator;

import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.fabrics.ConnectCommand;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.ConnectResponse;
import java.util.Optional;

/**
 * What a refused Connect means, in the words Linux {@code nvmf_log_connect_error()} logs for it, decoded from the
 * response's IATTR/IPO (NVMe-oF 1.1, Connect response): a wrong subsystem NQN is {@code Connect Invalid Data
 * Parameter, subsysnqn "..."} (nvmet: no such subsystem on that port), a host the subsystem does not list is {@code
 * Connect for subsystem ... is not allowed, hostnqn: ...}. The status name alone ({@code CONNECT_INVALID_PARAM})
 * does not say which field was wrong.
 */
public final class ConnectRefusal {

    private ConnectRefusal() {
    }

    /**
     * The meaning of {@code e} when it refused a Connect that sent {@code subnqn} and {@code hostnqn}; empty for
     * any other failure.
     */
    public static Optional<String> explain(NvmfStatusException e, String subnqn, String hostnqn) {
        Optional<StatusCode> code = e.statusCode();
        if (code.isEmpty()) {
            return Optional.empty();
        }
        var where = ConnectResponse.InvalidParameter.fromDw0((int) e.result());
        return switch (code.get()) {
            case CONNECT_INVALID_HOST -> Optional.of("Connect for subsystem " + subnqn + " is not allowed, hostnqn: "
                    + hostnqn + " (the subsystem does not list this host; the target's allowed hosts must name it)");
            case CONNECT_INVALID_PARAM -> Optional.of(where.inConnectData() ? dataField(where.offset(), subnqn,
                    hostnqn) : sqeField(where.offset()));
            default -> Optional.empty();
        };
    }

    private static String dataField(int offset, String subnqn, String hostnqn) {
        String inv = "Connect Invalid Data Parameter";
        return switch (offset) {
            case ConnectData.OFFSET_SUBNQN -> inv + ", subsysnqn \"" + subnqn + "\" (the target has no subsystem of"
                    + " that name on this port; discover lists those it has)";
            case ConnectData.OFFSET_HOSTNQN -> inv + ", hostnqn \"" + hostnqn + "\" (the target refuses this host"
                    + " NQN)";
            case ConnectData.OFFSET_CNTLID -> inv + ", cntlid (the target does not know the controller ID this"
                    + " queue names, or it belongs to another host)";
            case ConnectData.OFFSET_HOSTID -> inv + ", hostid (it differs from the admin queue's Host Identifier)";
            default -> inv + ", starting byte offset: " + offset;
        };
    }

    private static String sqeField(int offset) {
        String inv = "Connect Invalid SQE Parameter";
        return switch (offset) {
            case ConnectCommand.OFFSET_QID -> inv + ", qid (the target does not accept this queue ID)";
            case ConnectCommand.OFFSET_SQSIZE -> inv + ", sqsize (the queue size is beyond what the target allows)";
            default -> inv + ", starting byte offset: " + offset;
        };
    }
}
