import { randomBytes, randomInt } from 'node:crypto';

const ADJECTIVES = [
  'agile', 'amber', 'bold', 'brave', 'bright', 'brisk', 'calm', 'clever', 'cosmic', 'crisp', 'curious', 'dapper', 'daring', 'eager', 'fancy', 'fearless',
  'gentle', 'glad', 'golden', 'grand', 'happy', 'hardy', 'humble', 'jolly', 'keen', 'kind', 'lively', 'lucky', 'merry', 'mighty', 'misty', 'noble',
  'patient', 'plucky', 'polite', 'proud', 'quick', 'quiet', 'rapid', 'ready', 'rosy', 'rustic', 'shy', 'silent', 'silver', 'sleek', 'smart', 'snowy',
  'solid', 'spry', 'steady', 'stormy', 'sunny', 'swift', 'tidy', 'tiny', 'vivid', 'warm', 'wild', 'wise', 'witty', 'zany', 'zesty', 'zippy',
];
const ANIMALS = [
  'badger', 'beaver', 'bison', 'bobcat', 'camel', 'cheetah', 'cobra', 'condor', 'coyote', 'crane', 'dingo', 'dolphin', 'eagle', 'falcon', 'ferret', 'finch',
  'fox', 'gazelle', 'gecko', 'heron', 'hyena', 'ibis', 'impala', 'jackal', 'jaguar', 'koala', 'lemur', 'leopard', 'lynx', 'magpie', 'marmot', 'marten',
  'mole', 'moose', 'narwhal', 'newt', 'ocelot', 'octopus', 'orca', 'osprey', 'otter', 'owl', 'panda', 'panther', 'parrot', 'pelican', 'penguin', 'puffin',
  'puma', 'quokka', 'raven', 'seal', 'shark', 'sloth', 'stoat', 'swan', 'tapir', 'tiger', 'toucan', 'turtle', 'walrus', 'weasel', 'wombat', 'yak',
];

/**
 * A human-readable session token, adjective-animal-4 hex (e.g. swift-otter-1a2b), drawn from a CSPRNG and checked
 * against the ids in use. 64 × 64 × 65,536 ≈ 2.7e8 values: enough against guessing over loopback, not a password.
 */
export function newSessionId(inUse: (id: string) => boolean): string {
  for (;;) {
    const id = `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${ANIMALS[randomInt(ANIMALS.length)]}-${randomBytes(2).toString('hex')}`;
    if (!inUse(id)) return id;
  }
}
