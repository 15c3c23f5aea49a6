package org.wideec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class CliErrorsTest {
  @Test
  void aRefusedRpcNamesTheNameNodeItDialled() {
    ConnectException rpc = new ConnectException("Call From client/10.0.0.3 to nn:8020 failed on connection exception:"
        + " java.net.ConnectException: Connection refused; For more details see: http://wiki.apache.org/");
    rpc.initCause(new ConnectException("Connection refused"));
    assertEquals("cannot connect to nn:8020: Connection refused (is the NameNode running, and fs.defaultFS /"
        + " HADOOP_CONF_DIR right?)", CliErrors.describe(rpc));
  }

  @Test
  void aRefusedConnectionElsewhereIsNotBlamedOnTheNameNode() {
    IOException web = new IOException("http://10.77.1.11:9864/jmx?qry=x: Connection refused",
        new ConnectException("Connection refused"));
    assertEquals("cannot connect: Connection refused (http://10.77.1.11:9864/jmx?qry=x: Connection refused)",
        CliErrors.describe(web));
  }
}
