package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.fabrics.ConnectCommand;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.ConnectResponse.InvalidParameter;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A refused Connect read as Linux nvmf_log_connect_error() reads the response's IATTR/IPO. */
class ConnectRefusalTest {

    static final String SUB = "nqn.2026-12.io.nvmf4j:disk";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000001";

    private static Optional<String> refused(int statusField, InvalidParameter where) {
        NvmfStatusException e = new NvmfStatusException("Connect admin queue to " + SUB,
                Status.fromField(statusField), true, Integer.toUnsignedLong(where.toDw0()));
        return ConnectRefusal.explain(e, SUB, HOST);
    }

    @Test
    void anUnknownSubsystemIsTheSubsystemNqnField() {
        assertEquals("Connect Invalid Data Parameter, subsysnqn \"" + SUB + "\" (the target has no subsystem of that"
                + " name on this port; discover lists those it has)",
                refused(0x4182, InvalidParameter.inData(ConnectData.OFFSET_SUBNQN)).orElseThrow());
    }

    @Test
    void aHostNotAllowedIsConnectInvalidHost() {
        assertEquals("Connect for subsystem " + SUB + " is not allowed, hostnqn: " + HOST + " (the subsystem does"
                + " not list this host; the target's allowed hosts must name it)",
                refused(0x4184, InvalidParameter.inData(ConnectData.OFFSET_HOSTNQN)).orElseThrow());
    }

    @Test
    void sqeFieldsAndUnnamedOffsetsAreNamedAsLinuxDoes() {
        assertEquals("Connect Invalid SQE Parameter, qid (the target does not accept this queue ID)",
                refused(0x4182, InvalidParameter.inCommand(ConnectCommand.OFFSET_QID)).orElseThrow());
        assertEquals("Connect Invalid SQE Parameter, starting byte offset: 46",
                refused(0x4182, InvalidParameter.inCommand(ConnectCommand.OFFSET_CATTR)).orElseThrow());
        assertEquals("Connect Invalid Data Parameter, cntlid (the target does not know the controller ID this queue"
                + " names, or it belongs to another host)",
                refused(0x4182, InvalidParameter.inData(ConnectData.OFFSET_CNTLID)).orElseThrow());
    }

    @Test
    void anyOtherStatusHasNothingToDecode() {
        assertEquals(Optional.empty(), refused(0x4002, InvalidParameter.inData(0)));
    }
}
