"""`dogtable bridge status|monitor`, with the simulated MCU and with bad input."""
import os
import pty
import threading
import tty

import pytest

from companion.cli import main


def test_status_with_simulated_mcu(capsys):
    assert main(["bridge", "status", "--simulate"]) == 0
    out = capsys.readouterr().out
    assert "link          up on" in out
    assert "firmware      dogtable-sim 2.0.0, protocol 2" in out
    assert "LED map       64 fields, 768 pixels; 4 buttons" in out
    assert "frames        sent" in out and "corrupted 0" in out


def test_monitor_shows_events_and_counters(capsys):
    assert main(["bridge", "monitor", "--simulate", "--seconds", "1.2", "--interval", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "encoder  +1" in out
    assert "[up] rtt" in out and "superseded" in out


def test_missing_port_is_a_one_line_user_error(tmp_path, capsys):
    assert main(["bridge", "status", "--port", str(tmp_path / "ttyACM7")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "not found: plug the MCU in" in err and "--simulate" in err
    assert "Traceback" not in err


def test_port_that_never_answers_is_a_user_error(capsys):
    master, slave = pty.openpty()
    tty.setraw(slave)
    try:
        assert main(["bridge", "status", "--port", os.ttyname(slave), "--timeout", "0.5"]) == 2
    finally:
        os.close(master)
        os.close(slave)
    err = capsys.readouterr().err
    assert "no answer from an MCU" in err and "firmware is flashed" in err
    assert err.count("\n") == 1


def test_bad_timeout_is_a_user_error(capsys):
    assert main(["bridge", "status", "--simulate", "--timeout", "0"]) == 2
    assert "--timeout must be" in capsys.readouterr().err


@pytest.mark.parametrize("args,says", [
    (["--simulate", "--baud", "-1"], "--baud: baud rate -1 is not a whole number from 50 to 4000000"),
    (["--simulate", "--baud", "0"], "--baud: baud rate 0"),
    (["--simulate", "--baud", "99999999999"], "--baud: baud rate 99999999999"),
    (["--port", "/dev/tty\x00ACM0"], "--port: the serial port name '/dev/tty\\x00ACM0' contains a control character"),
    (["--port", ""], "--port: the serial port name is empty"),
    (["--simulate", "--timeout", "nan"], "--timeout must be a positive number"),
])
@pytest.mark.parametrize("command", ["status", "monitor"])
def test_bad_bridge_arguments_are_one_line_and_exit_2(command, args, says, capsys):
    """A bad argument such as `--baud -1` is one line and exit 2, never a thread's traceback."""
    before = threading.active_count()
    assert main(["bridge", command, *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and says in captured.err, captured.err
    assert "Traceback" not in captured.err + captured.out
    assert threading.active_count() == before  # no link thread left behind


@pytest.mark.parametrize("args,says", [
    (["--seconds", "nan"], "--seconds must be zero or more"),
    (["--interval", "0"], "--interval must be a positive number"),
])
def test_bad_monitor_times_are_user_errors(args, says, capsys):
    assert main(["bridge", "monitor", "--simulate", *args]) == 2
    assert says in capsys.readouterr().err


def test_client_refuses_a_bad_baud_rate_before_any_thread_starts():
    from firmware_bridge import BridgeClient

    for baud in (-1, 0, 10**12, 115200.0, True):
        with pytest.raises(ValueError, match="baud rate"):
            BridgeClient("/dev/ttyACM0", baud)
