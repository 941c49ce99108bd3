package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.protocol.Status;

/** The admin and I/O queues a test host sets up against an {@link RdmaTargetFixture}, checked as they connect. */
final class RdmaHosts {

    private RdmaHosts() {
    }

    /** An admin queue of {@link RdmaTargetFixture#HOST}, connected, with the controller enabled. */
    static ScriptedRdmaHost adminEnabled(RdmaTargetFixture fixture) throws Exception {
        ScriptedRdmaHost admin = ScriptedRdmaHost.connect(fixture.address, 0, 32);
        ScriptedRdmaHost.Response r = admin.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN,
                RdmaTargetFixture.HOST);
        assertEquals(0, r.status(), () -> "admin Connect " + Status.fromField(r.status()));
        assertEquals(0, admin.propertySet(0x14, ScriptedRdmaHost.CC_ENABLE_NVM).status());
        return admin;
    }

    /** I/O queue {@code qid} of controller {@code cntlid}, connected. */
    static ScriptedRdmaHost ioQueue(RdmaTargetFixture fixture, int cntlid, int qid) throws Exception {
        ScriptedRdmaHost io = ScriptedRdmaHost.connect(fixture.address, qid, 32);
        ScriptedRdmaHost.Response r = io.connectCommand(qid, 31, cntlid, RdmaTargetFixture.SUBNQN,
                RdmaTargetFixture.HOST);
        assertEquals(0, r.status(), () -> "I/O Connect " + Status.fromField(r.status()));
        return io;
    }
}
