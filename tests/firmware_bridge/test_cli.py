"""`dogtable bridge status|monitor`, with the simulated MCU and with bad input."""
import os
import pty
import tty

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
