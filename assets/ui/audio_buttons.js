// The audio card's buttons and Listen: start and stop RX audio, the volume (remembered in
// the browser) and mute.
import { byId, toast, loadSetting, saveSetting } from './dom.js';

export class AudioButtons {
  /** `audio`: the AudioEngine; `changed()` asks for a redraw. */
  constructor(audio, changed) {
    this.audio = audio;
    this.changed = changed;
    const volume = byId('volume');
    volume.value = loadSetting('volume', 80);
    audio.setVolume(volume.value / 100);
    volume.addEventListener('input', () => {
      audio.setVolume(+volume.value / 100);
      saveSetting('volume', +volume.value);
    });
    byId('listen').addEventListener('click', () => this.toggleListen());
    byId('mute').addEventListener('click', () => this.toggleMute());
  }

  /** Starts or stops RX audio. */
  toggleListen() {
    if (this.audio.listening) this.audio.stopListening();
    else this.audio.listen().catch((e) => toast(`Audio: ${e.message}`, 'bad'));
    this.changed();
  }

  /** Mutes or unmutes RX audio. */
  toggleMute() {
    this.audio.setMuted(!this.audio.muted);
    byId('mute').setAttribute('aria-pressed', String(this.audio.muted));
  }
}
